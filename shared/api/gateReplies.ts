import * as z from 'zod/mini';
import { timestamp } from './output.ts';

/** What the gate group's routes answer: types and the document only, never parsed at run time. */
export const gateReplies = {
  /** The same whether or not the address was the link's: nobody learns which address a link is for. */
  GateCodeSent: z.strictObject({ sent: z.literal(true) }),
  /** Bound to one secret, one recipient link and one address; stored only as a hash. */
  GateSession: z.strictObject({ gate_token: z.string(), expires_at: timestamp }),
};
