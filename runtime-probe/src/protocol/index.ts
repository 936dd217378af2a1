// Busscope wire protocol v1 — the one definition imported by the probe, the Node client, the
// extension and the webview. No Node built-ins here (browsers and the extension bundle import it).
// Documented in runtime-probe/PROTOCOL.md.

export * from './version';
export * from './limits';
export * from './errors';
export * from './bytes';
export * from './framing';
export * from './stall-watch';
export * from './records';
export * from './record-writer';
export * from './record-decoder';
export * from './dispatch-columns';
export * from './record-encoder';
export * from './messages';
export * from './probe-messages';
export * from './stream';
export * from './trace-file';
export * from './site-origin';
export * from './assert-never';
