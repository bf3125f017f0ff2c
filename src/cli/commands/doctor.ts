/**
 * `dsh-mode doctor [--format text|json]`: whether what dsh-mode relies on works on this machine. Today that is the
 * OS sandbox that modes with `sandbox: read-only` (the built-in plan) run `bash` in: it answers by running a real
 * command in it (`sandboxSupport`), and says what is missing and how to install it. `runDoctor` returns a report
 * and prints nothing.
 * @module
 */
import type { SandboxSupport } from '../../host/sandbox/index.js';
import type { CliCommand, CommandSpec } from '../command.js';
import { stringOption } from '../argv.js';
import { UsageError } from '../errors.js';

/** What `doctor` found. JSON output is this object: fields are added, never renamed or removed. */
export interface DoctorReport {
  /** The OS sandbox for commands: whether it starts here, with what, and how to install it when it does not. */
  sandbox: SandboxSupport;
}

/** Options of {@link runDoctor}. */
export interface RunDoctorOptions {
  /** The environment programs are looked up in (`PATH`) and the sandbox takes its own from. */
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Checks this machine.
 * @returns what works and what does not
 */
export async function runDoctor(options: RunDoctorOptions): Promise<DoctorReport> {
  const { sandboxSupport } = await import('../../host/sandbox/index.js');
  return { sandbox: await sandboxSupport({ hostEnv: options.env }) };
}

/**
 * The report as text: one line per check, then what to do.
 * @returns the text, ending in a newline
 */
export function formatDoctorText(report: DoctorReport): string {
  const s = report.sandbox;
  if (s.available) {
    const limits = s.limits === 'rlimit+cgroup' ? 'rlimits and a pids cgroup' : 'rlimits';
    return [
      `sandbox: available (${s.kind === 'bwrap' ? 'bubblewrap' : s.kind}; processes bounded by ${limits})`,
      '  modes with `sandbox: read-only`, the built-in plan among them, run bash in it',
      '',
    ].join('\n');
  }
  return [
    `sandbox: not available: ${s.reason ?? 'unknown reason'}`,
    '  modes with `sandbox: read-only`, the built-in plan among them, deny bash until it works',
    ...(s.howToInstall ? [`help: ${s.howToInstall}`] : []),
    '',
  ].join('\n');
}

const spec: CommandSpec = {
  name: 'doctor',
  summary: 'check that this machine can run what dsh-mode relies on (the OS sandbox)',
  usage: 'doctor [--format text|json]',
  description: [
    'Checks the OS sandbox that modes with `sandbox: read-only` (the built-in plan among them) run bash in,',
    'by running a command in it: on Linux, bubblewrap (bwrap) and bash on the PATH, namespaces the kernel',
    'permits, and for a root user a pids cgroup. It prints whether the sandbox works, how processes are',
    'bounded, and otherwise what is missing and how to install it. Where it does not work, those modes deny',
    'bash with the same reason; bash never runs unsandboxed there.',
    '',
    'With --format json the report is {"sandbox": {"available", "kind", "limits", "reason", "howToInstall"}}',
    '(kind is bwrap or none; limits is rlimit or rlimit+cgroup when available; reason when not).',
    '',
    'Exit codes: 0 the sandbox works; 1 it does not; 2 usage errors.',
  ].join('\n'),
  options: [
    {
      name: 'format',
      type: 'string',
      value: 'NAME',
      choices: ['text', 'json'],
      description: 'output format, default text',
    },
  ],
  examples: ['doctor', 'doctor --format json'],
};

/** The command-line adapter of `doctor`. */
export const command: CliCommand = {
  spec,
  async execute(args, env) {
    if (args.positionals.length > 0)
      throw new UsageError(`unexpected argument \`${args.positionals[0]}\``, 'doctor takes no arguments');
    const report = await runDoctor({ env: env.vars });
    const stdout =
      stringOption(args, 'format') === 'json'
        ? `${JSON.stringify(report, null, 2)}\n`
        : formatDoctorText(report);
    return { kind: report.sandbox.available ? 'ok' : 'findings', stdout };
  },
};
