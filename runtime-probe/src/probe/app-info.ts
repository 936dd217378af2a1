import path from 'node:path';
import type { AppInfo } from '../protocol/index';

/** The app's name: the option, else the main script's file name, else the process title. */
export function defaultAppName(): string {
  const main = process.argv[1];
  if (typeof main === 'string' && main.length > 0) return path.basename(main).replace(/\.(c|m)?[jt]sx?$/, '');
  return process.title || 'node';
}

export function appInfo(name: string, startTime: number): AppInfo {
  return { pid: process.pid, name, cwd: process.cwd(), startTime, runtime: `node ${process.version}` };
}
