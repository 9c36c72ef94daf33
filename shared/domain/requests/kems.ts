/**
 * The KEMs of request links (docs/envelope.md): X25519, or P-256 where the platform has no X25519.
 * A module of its own, importing nothing, so the wire schemas can name them without the model.
 */
export const requestKems = ['x25519', 'p256'] as const;
export type RequestKem = (typeof requestKems)[number];
