// Types of test-tiers.mjs for the TypeScript tests that import it.
export type TierName = 'unit' | 'integration' | 'jsdom' | 'package' | 'chromium' | 'code-server';
export interface Tier {
  readonly name: TierName;
  readonly state: 'ran' | 'skipped' | 'missing' | 'not selected';
  readonly reason?: string;
  readonly fix?: string;
}
export declare function tierOf(root: string, file: string): TierName;
export declare function needsVsix(root: string, files: readonly string[]): boolean;
export declare function prepareTiers(root: string, files: readonly string[], log: (line: string) => void): Promise<Tier[]>;
export declare function tierSummary(tiers: readonly Tier[]): string;
export declare function writeTierReport(file: string, tiers: readonly Tier[]): void;
