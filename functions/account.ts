import { SESClient } from '@aws-sdk/client-ses';
import { SesMailer } from '../shared/adapters/ses.ts';
import { lambdaEntry, type Deps } from '../shared/deps.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { productOperations } from './account/product.ts';
import { sessionOperations } from './account/session.ts';

/** The account group (interface §4.4): sign-in and sessions, API keys, usage, flags, regions. */
export const operations: Operations<'account'> = { ...sessionOperations, ...productOperations };

export const createHandler = (deps: Deps) => groupHandler('account', operations, deps);
// Sign-in codes go out through SES; this is the one function that sends mail.
export const handler = lambdaEntry(createHandler, (config) => ({
  mailer: new SesMailer(new SESClient({ region: config.REGION }), config.MAIL_FROM),
}));
