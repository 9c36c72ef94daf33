/** Envelope v1: the one implementation the web client, the CLI, the server checks and the tests use. */
export * from './bytes.ts';
export * from './errors.ts';
export * from './format.ts';
export * from './keys.ts';
export * from './envelope.ts';
export * from './stream.ts';
export * from './requestLink.ts';
