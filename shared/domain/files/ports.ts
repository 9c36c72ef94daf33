/** A part S3 holds of an upload in progress. */
export interface StoredPart {
  partNumber: number;
  etag: string;
  size: number;
}

/** Why S3 refused to complete an upload (each a conflict for the client but `no_such_upload`, which is not pending). */
export type CompleteRefusal = 'invalid_part' | 'too_small' | 'invalid_order' | 'no_such_upload';

/**
 * Multipart uploads of the files bucket (the files function's, through the S3 client): the
 * upload, its presigned part URLs, what S3 holds of it, its completion and abort, and the
 * completed object's size.
 */
export interface MultipartUploads {
  start(key: string): Promise<string>;
  /**
   * A presigned UploadPart URL for exactly this part, of exactly `sizeBytes`: the length is
   * signed (`content-length` among the signed headers), so S3 refuses a body of any other.
   */
  partUrl(key: string, uploadId: string, partNumber: number, sizeBytes: number, expiresInSeconds: number): Promise<string>;
  /** Every part S3 holds, in order; null when it knows no such upload. */
  parts(key: string, uploadId: string): Promise<StoredPart[] | null>;
  complete(
    key: string,
    uploadId: string,
    parts: Array<{ partNumber: number; etag: string }>,
  ): Promise<{ completed: true } | { completed: false; reason: CompleteRefusal }>;
  /** Aborts the upload and so deletes its parts; an upload S3 no longer knows is fine. */
  abort(key: string, uploadId: string): Promise<void>;
  /** The completed object's size in bytes, or null when there is none. */
  size(key: string): Promise<number | null>;
  /** Deletes the object; one already gone is fine. */
  remove(key: string): Promise<void>;
  /** The completed object's first `length` bytes (fewer when it is shorter): its envelope header. */
  firstBytes(key: string, length: number): Promise<Uint8Array>;
}

/**
 * What every other function needs of the files bucket (presigned requests and the official
 * presigner, no S3 client): a download URL that is the claim of a file, and removals.
 */
export interface FileObjects {
  /** A presigned GET of the object, which accepts `Range`. */
  downloadUrl(key: string, expiresInSeconds: number): Promise<string>;
  /** Deletes the object; one already gone is fine. */
  remove(key: string): Promise<void>;
  /** Aborts a multipart upload (its parts go); one S3 no longer knows is fine. */
  abortUpload(key: string, uploadId: string): Promise<void>;
}

/** Where a file secret's object lives: its key never names the file. */
export const objectKeyOf = (secretId: string): string => `files/${secretId}`;
