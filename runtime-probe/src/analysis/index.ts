// `busscope-probe/analysis`: the model and the analyses Busscope runs on a recorded or live stream,
// with no `vscode`, no DOM and no Node built-ins — the extension, its inspector webview and the CLI
// all run this one core. Feed it the messages of a trace (`readTraceFile` from `busscope-probe`) or
// of a `ProbeClient`, then ask the analyses for warnings.
export * from './model/index';
export * from './analyses/index';
export { readSettings, SETTING, SETTING_DEFAULTS, RING_LIMITS, type BusscopeSettings, type SettingsReader } from './settings';
export { hasBidiControls, visibleText } from './visibleText';
