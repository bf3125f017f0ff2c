/** Types of cli.mjs for the tests (the generator itself is checked JavaScript). */
export declare const README_SUMMARY_BEGIN: string;
export declare const README_SUMMARY_END: string;
export declare function readmeSummary(): Promise<string>;
export declare function withReadmeSummary(readme: string): Promise<string>;
export declare function exitCodesOf(spec: {
  name: string;
  description: string;
}): { code: number; when: string }[];
export declare function cliPage(): Promise<string>;
