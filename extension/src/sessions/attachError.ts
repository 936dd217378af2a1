// Why an attach failed, in words a user can act on. The client's error codes (protocol, version,
// token, socket) map to one message each; the raw detail is kept for the log. No `vscode` here.
import { ProbeClientError } from '../../../runtime-probe/src/client/index';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../../runtime-probe/src/protocol/index';

export type AttachErrorCode =
  'not-found' | 'connect-failed' | 'bad-token' | 'version-mismatch' | 'not-a-probe' | 'timeout' | 'refused' | 'bad-trace' | 'internal';

export class AttachError extends Error {
  override readonly name = 'AttachError';
  constructor(
    readonly code: AttachErrorCode,
    /** One or two sentences for a notification. */
    message: string,
    /** The underlying error's text, for the log. */
    readonly detail?: string,
  ) {
    super(message);
  }
}

export interface AttachWhat {
  /** "busscope-demo (pid 123)" or "127.0.0.1:5000". */
  readonly what: string;
  /** The app's protocol version from its discovery file, when known. */
  readonly appProtocolVersion?: number;
}

const ours = (): string => SUPPORTED_PROTOCOL_VERSIONS.join(', ');

/** Maps whatever `ProbeClient.connect` threw to an AttachError. */
export function attachErrorFrom(error: unknown, { what, appProtocolVersion }: AttachWhat): AttachError {
  if (error instanceof AttachError) return error;
  if (!(error instanceof ProbeClientError)) {
    const text = error instanceof Error ? error.message : String(error);
    return new AttachError('internal', `Could not attach to ${what}: ${text}`, text);
  }
  const detail = error.message;
  switch (error.code) {
    case 'connect-failed':
      return new AttachError('connect-failed', `Nothing answers at ${what}: the app may have exited, or the address is wrong.`, detail);
    case 'bad-token':
      return new AttachError(
        'bad-token',
        `${what} refused the token. The token changes every time the app starts: copy it again from the app's discovery file or log.`,
        detail,
      );
    case 'unsupported-version': {
      const theirs = appProtocolVersion !== undefined ? `protocol version ${appProtocolVersion}` : 'a protocol version this extension does not speak';
      return new AttachError(
        'version-mismatch',
        `${what} speaks ${theirs}; this Busscope extension speaks version ${ours()}. Update the busscope-probe package in the app or the Busscope extension so they match.`,
        detail,
      );
    }
    case 'timeout':
    case 'handshake-timeout':
      return new AttachError(
        'timeout',
        `${what} did not complete the Busscope handshake in time. Is it a Busscope probe, and is the app responsive (not paused in a debugger)?`,
        detail,
      );
    case 'frame-too-large':
    case 'malformed':
    case 'unknown-kind':
    case 'unknown-message':
    case 'truncated':
    case 'undefined-reference':
    case 'handshake-required':
      return new AttachError('not-a-probe', `${what} did not answer like a Busscope probe (${detail}).`, detail);
    case 'probe-stopping':
      return new AttachError('refused', `${what} is shutting its probe down.`, detail);
    case 'closed':
      return new AttachError('connect-failed', `${what} closed the connection during the handshake: the app may be exiting.`, detail);
    default:
      return new AttachError('refused', `${what} refused the connection: ${detail}`, detail);
  }
}
