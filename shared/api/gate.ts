import * as z from 'zod/mini';
import { gateLimits } from '../limits.ts';
import { email, recipientId } from './secrets.ts';

/**
 * What the gate group's routes take (interface §4.1, restricted recipients), by the names the
 * route table uses. Its answers are in gateReplies.ts.
 */
export const gateRequests = {
  GateStartRequest: z.strictObject({ recipient_id: recipientId, email }),
  GateVerifyRequest: z.strictObject({
    recipient_id: recipientId,
    email,
    code: z.string().check(z.regex(new RegExp(`^\\d{${gateLimits.codeDigits}}$`), `the code is ${gateLimits.codeDigits} digits`)),
  }),
};
