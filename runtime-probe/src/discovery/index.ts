export { discoveryDirectory } from './directory';
export {
  isProcessAlive,
  listDiscoveredApps,
  removeDiscoveryFile,
  writeDiscoveryFile,
  type DiscoveredApp,
  type DiscoveryEntry,
  type ListOptions,
} from './discovery-file';
export { onProcessExit } from './exit-hooks';
