/**
 * File transfer for the command-line client (interface §4.2): a file sealed chunk by chunk as
 * it is read and uploaded by presigned multipart, resumed after a crash only where the parts
 * S3 kept are proved, and downloaded by ranged GETs, opened chunk by chunk, renamed into place
 * once whole. Neither direction holds the file in memory.
 */
export { ApiError, TransferError, type TransferErrorCode } from './errors.ts';
export { uploadFile, type UploadOptions, type UploadProgress, type UploadResult } from './upload.ts';
export { resumeUpload, type ResumeOptions, type ResumeResult } from './resume.ts';
export {
  downloadEnvelope,
  downloadFile,
  parseLink,
  type DownloadOptions,
  type DownloadResult,
  type EnvelopeDownloadOptions,
} from './download.ts';
export { clientHeaders, type Fetch } from './api.ts';
export type { UploadState } from './state.ts';
