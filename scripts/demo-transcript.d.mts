/** Types of demo-transcript.mjs for the tests that import it. */
export const DOC: string;
export const START: string;
export const END: string;
export const INPUT: string;
export function demoTranscript(root: string): string;
export function withTranscript(page: string, transcript: string): string;
