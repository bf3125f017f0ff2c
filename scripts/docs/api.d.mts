/** Types of api.mjs, for the test that holds the public API to its budget. */

/** One exported name of an entry point. */
export interface ApiName {
  name: string;
  kind: string;
  summary: string;
  /** The source file that declares it. */
  from: string;
}

/** The package's code entry points: the subpath, and the source file its `dist/` target is built from. */
export declare function entryPoints(root: string): { subpath: string; source: string }[];

/** The exports of each entry point, from a fresh program over src/, sorted by name. */
export declare function apiSurfaceOf(root: string): { subpath: string; source: string; names: ApiName[] }[];
