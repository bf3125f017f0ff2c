// Child process for the crash test: appends turns to a session as fast as it can and prints the seq of every
// acknowledged (awaited) event on stdout, until it is killed with SIGKILL.
// argv: <built host index.js> <workspace> <session id>
const [hostModule, workspace, id] = process.argv.slice(2);
const { applyHost } = await import(hostModule);
const { Context } = await import('cordis');
const ctx = new Context();
await applyHost(ctx, { workspace, builtinTools: false });
const session = ctx.sessions.create({ id });
for (let turn = 1; ; turn++) {
  process.stdout.write(`${(await session.append('turn/start', { turn })).seq}\n`);
  for (let i = 0; i < 5; i++) {
    const event = await session.append('user/message', {
      text: `turn ${turn} message ${i} ${'x'.repeat(200)}`,
    });
    process.stdout.write(`${event.seq}\n`);
  }
  process.stdout.write(`${(await session.append('turn/end', { turn, reason: 'done' })).seq}\n`);
}
