export function withPidLock<T>(
  lockPath: string,
  options: { timeoutMs: number; pollMs: number; onWait?: (holder: number) => void },
  fn: () => T | Promise<T>,
): Promise<T>;
