/** Types of generate.mjs, for the tests that import it. */

/** The folder the pages go to, relative to the repository root. */
export declare const REFERENCE_DIR: string;

/**
 * Generates every reference page.
 * @param root the repository root
 * @returns file name (inside docs/reference) → content, sorted by name
 */
export declare function generateReference(root: string): Promise<Map<string, string>>;
