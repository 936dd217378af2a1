// Building a model the way the extension does, for `check` and `show`: a trace file is read into it
// through the model's record sink (as Open Trace does, a trace cut mid-record keeps what came
// before), a running app is attached to and observed until --duration, Ctrl+C or its end.

import path from 'node:path';
import { Model } from '../analysis/model/index';
import { readTraceFile } from '../client/index';
import { ProtocolError } from '../protocol/index';
import type { CheckArgs, TargetArg } from './args';
import { Unreachable, resolveTarget, stream, type SessionEnd } from './attach';

export interface TraceModel {
  readonly model: Model;
  readonly file: string;
  /** Set when the trace ends mid-record (what came before is in the model). */
  readonly cut: string | undefined;
}

/** Reads a trace file; an unreadable or foreign file is Unreachable (exit 3). */
export async function loadTrace(file: string): Promise<TraceModel> {
  const absolute = path.resolve(file);
  const model = new Model();
  let cut: string | undefined;
  try {
    for await (const message of readTraceFile(absolute, model.recordSink)) model.apply(message);
  } catch (error) {
    if (error instanceof ProtocolError && error.code === 'truncated' && model.sessionInfo.app !== null) {
      cut = 'the trace ends mid-record (the app probably stopped abruptly); everything before was checked';
    } else if (error instanceof ProtocolError && error.code === 'not-a-trace') {
      throw new Unreachable(`${absolute} is not a Busscope trace file (record one with BUSSCOPE_RECORD=<file> or \`busscope record\`)`);
    } else {
      throw new Unreachable(`cannot read the trace ${absolute}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  model.endSession(cut ?? 'end of trace');
  return { model, file: absolute, cut };
}

export interface AppModel {
  readonly model: Model;
  readonly end: SessionEnd;
  /** `app <name> (pid <pid>)`. */
  readonly app: string;
  readonly label: string;
}

/** Attaches to the app and feeds the model until the session ends; the model is then ended too. */
export async function observeApp(flags: Pick<CheckArgs, 'host' | 'detail' | 'durationMs'> & { readonly target: TargetArg }): Promise<AppModel> {
  const target = resolveTarget(flags);
  const model = new Model();
  const { end, app } = await stream(
    target,
    flags,
    'busscope check',
    (m) => model.apply(m),
    undefined,
    () => undefined,
    model.recordSink,
  );
  // Observation ended by us (--duration, Ctrl+C): a quiet app sent nothing lately, so move model
  // time to now, as the extension's live session does every second, for grace periods to count.
  const origin = model.sessionInfo.timeOrigin;
  if (end.kind === 'stopped' && origin > 0) model.advanceTime(Date.now() - origin);
  model.endSession(end.kind === 'stopped' ? 'detached' : 'app exited');
  return { model, end, app, label: target.label };
}
