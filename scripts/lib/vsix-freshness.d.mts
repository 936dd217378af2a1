// Types of vsix-freshness.mjs for the TypeScript tests that import it.
export declare const PACKAGE_INPUTS: readonly string[];
export declare function busscopeVsixPath(root: string): string;
export declare function isVsixFresh(root: string, vsix?: string): boolean;
