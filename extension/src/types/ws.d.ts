// The part of `ws` (a devDependency, bundled into the extension) that Busscope uses. The package
// ships no types and the project adds no @types packages.
declare module 'ws' {
  import type { EventEmitter } from 'node:events';
  import type { IncomingMessage } from 'node:http';

  export type RawData = Buffer | ArrayBuffer | Buffer[];

  export class WebSocket extends EventEmitter {
    static readonly OPEN: 1;
    constructor(address: string, options?: { headers?: Record<string, string>; origin?: string; maxPayload?: number });
    readonly readyState: 0 | 1 | 2 | 3;
    readonly bufferedAmount: number;
    binaryType: 'nodebuffer' | 'arraybuffer' | 'fragments';
    send(data: Uint8Array | string, cb?: (error?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    pause(): void;
    resume(): void;
    on(event: 'message', listener: (data: RawData, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: 'open', listener: () => void): this;
    on(event: 'unexpected-response', listener: (req: unknown, res: IncomingMessage) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export interface VerifyClientInfo {
    readonly origin: string;
    readonly secure: boolean;
    readonly req: IncomingMessage;
  }

  export interface ServerOptions {
    host?: string;
    port?: number;
    maxPayload?: number;
    perMessageDeflate?: boolean;
    clientTracking?: boolean;
    verifyClient?: (info: VerifyClientInfo, callback: (result: boolean, code?: number, message?: string) => void) => void;
  }

  export class WebSocketServer extends EventEmitter {
    constructor(options: ServerOptions, callback?: () => void);
    address(): { port: number } | string | null;
    readonly clients: Set<WebSocket>;
    close(cb?: (error?: Error) => void): void;
    on(event: 'connection', listener: (socket: WebSocket, req: IncomingMessage) => void): this;
    on(event: 'listening', listener: () => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export default WebSocket;
}
