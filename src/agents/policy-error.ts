/**
 * What `compiled.ts` (the kept record) and `policies.ts` (the long way) share: the deployment file's name, the
 * error that denies every call outside the default mode, and what the long way returns.
 * @module
 */
import type { SourceDocument } from '../compile/types.js';

/** The deployment file a workspace may hold. */
export const DEPLOYMENT_FILE = 'cordis.yml';

/** The policies cannot be used: every call in a mode other than `default` is denied with this message. */
export class PolicyLoadError extends Error {
  override readonly name = 'PolicyLoadError';
}

/** What the long way read: the documents and every input they came from. */
export interface ReadDeployment {
  documents: SourceDocument[];
  source: string;
  /** Every file read. */
  files: string[];
  /** Every folder whose listing chose files. */
  folders: string[];
}
