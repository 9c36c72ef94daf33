/**
 * The parts of @20minutes/s3rver (4.0.4, pinned: local/s3Layer.ts hooks into them) the local S3
 * uses. The package ships no types; these follow its lib/ sources.
 */
declare module '@20minutes/s3rver' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';
  import type { S3Context } from '@20minutes/s3rver/lib/models/error.js';

  export interface BucketConfig {
    name: string;
    /** CORSConfiguration or WebsiteConfiguration XML documents. */
    configs: Array<string | Buffer>;
  }

  export interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    configureBuckets?: BucketConfig[];
  }

  /** lib/stores/filesystem.js */
  export interface FilesystemStore {
    /** `<directory>/<bucket>/<key's folders>/<key's name>._S3rver_<resource>` */
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    /** Concatenates the listed parts of an upload into its object, then removes the upload's folder. */
    putObjectMultipart(
      bucket: string,
      uploadId: string,
      parts: Array<{ number: number; etag: string }>,
    ): Promise<{ md5: string; size: number }>;
  }

  /** A Koa application: `middleware` is the chain `run()` composes, the router last. */
  export default class S3rver {
    constructor(options: S3rverOptions);
    readonly store: FilesystemStore;
    readonly middleware: Array<(context: S3Context, next: () => Promise<void>) => Promise<void> | void>;
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
    httpServer?: Server<typeof IncomingMessage, typeof ServerResponse>;
  }
}

declare module '@20minutes/s3rver/lib/models/error.js' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** The Koa context as s3rver's middleware sees it. */
  export interface S3Context {
    req: IncomingMessage;
    res: ServerResponse;
    method: string;
    querystring: string;
    status: number;
    body: unknown;
    type: string;
    readonly headerSent: boolean;
    set(field: string, value: string): void;
    app: { emit(event: 'error', error: unknown, context: S3Context): boolean };
  }

  /** An S3 error: its code, message and extra elements, rendered as S3's XML error document. */
  export default class S3Error extends Error {
    static fromError(error: unknown): S3Error;
    constructor(code: string, message: string, detail?: Record<string, string>);
    readonly code: string;
    readonly status: number;
    readonly detail: Record<string, string>;
    toXML(): string;
  }
}

declare module '@20minutes/s3rver/lib/models/account.js' {
  /** s3rver's accounts: the keys its own signature check accepts. */
  export default class AWSAccount {
    /** The account of the published key S3RVER/S3RVER, made when the module loads. */
    static readonly DUMMY_ACCOUNT: AWSAccount;
    static readonly registry: Map<string, AWSAccount>;
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
    revokeAccessKey(accessKeyId: string): void;
  }
}
