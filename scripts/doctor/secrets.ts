import { DescribeSecretCommand, GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { chatSettings } from '../../shared/adapters/chatSecrets.ts';
import { stripeSettings } from '../../shared/adapters/stripeSecrets.ts';
import type { StripeSettings } from '../../shared/adapters/stripe.ts';
import { fail, ok, type Check } from './report.ts';

/**
 * The two secrets the operator sets after a deploy (lib/stack.ts): read through the adapters the
 * functions read them with (shared/adapters/stripeSecrets.ts, chatSecrets.ts), so the doctor
 * accepts exactly what a cold start accepts. When they refuse, the value is read once more only
 * to say which part is wrong; no value, and no part of one, is ever printed.
 */

/** What each field must be, in words (the adapters' rules). */
const paymentFields = {
  secret_key: { rule: /^(sk|rk)_/, says: 'a secret or restricted key, sk_… or rk_…' },
  webhook_secret: { rule: /^whsec_/, says: "the webhook endpoint's signing secret, whsec_…" },
};
const slackSecret = { rule: /^[0-9a-f]{32}$/, says: '32 hex characters, as Slack shows it' };
const chatFields = { client_secret: slackSecret, signing_secret: slackSecret };

/** Which fields of a stored secret are wrong, in words that quote none of it. */
export function whatIsWrong(text: string | undefined, fields: Record<string, { rule: RegExp; says: string }>): string {
  if (text === undefined) return 'it has no text value';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'it is not JSON: still the random value made at deploy';
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'it is not a JSON object';
  const problems = Object.entries(fields).flatMap(([field, { rule, says }]) => {
    const found = (value as Record<string, unknown>)[field];
    if (found === undefined) return [`${field} is missing`];
    if (typeof found !== 'string' || !rule.test(found)) return [`${field} is not ${says}`];
    return [];
  });
  return problems.length > 0 ? problems.join('; ') : 'it does not hold what the function expects';
}

/** `secretsmanager:DescribeSecret`: a secret scheduled for deletion cannot be read by the functions. */
async function scheduledForDeletion(
  secrets: SecretsManagerClient,
  arn: string,
): Promise<{ deleted: Date | undefined; changed: Date | undefined }> {
  const described = await secrets.send(new DescribeSecretCommand({ SecretId: arn }));
  return { deleted: described.DeletedDate, changed: described.LastChangedDate ?? described.CreatedDate };
}

const day = (date: Date | undefined) => (date ? date.toISOString().slice(0, 10) : 'unknown');
const restore = (arn: string) => `restore it: aws secretsmanager restore-secret --secret-id ${arn}`;
const isShapeRefusal = (error: unknown) => /secret is not \{/.test((error as Error).message ?? '');

/**
 * `PaymentProviderSecretsArn` holds `{secret_key, webhook_secret}` of Stripe's shapes. Answers
 * the settings read (for the Stripe checks) when it does.
 */
export async function checkPaymentSecret(
  secrets: SecretsManagerClient,
  arn: string,
  region: string,
): Promise<{ check: Check; stripe: StripeSettings | null }> {
  const name = 'payment secrets';
  const put = `aws secretsmanager put-secret-value --secret-id ${arn} --secret-string '{"secret_key":"sk_live_…","webhook_secret":"whsec_…"}' (docs/deploy.md, "Payments (Stripe)")`;
  const { deleted, changed } = await scheduledForDeletion(secrets, arn);
  if (deleted)
    return { check: fail(name, `PaymentProviderSecretsArn is scheduled for deletion on ${day(deleted)}`, restore(arn)), stripe: null };
  try {
    const stripe = await stripeSettings({ REGION: region, STRIPE_SECRETS_ARN: arn });
    const mode = /^(sk|rk)_live_/.test(stripe.secretKey) ? 'live' : 'test';
    return { check: ok(name, `PaymentProviderSecretsArn holds a ${mode}-mode key and a webhook secret (set ${day(changed)})`), stripe };
  } catch (error) {
    if (!isShapeRefusal(error)) throw error;
    const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: arn }));
    return {
      check: fail(name, `PaymentProviderSecretsArn is not {secret_key, webhook_secret}: ${whatIsWrong(SecretString, paymentFields)}`, put),
      stripe: null,
    };
  }
}

/**
 * `ChatAppSecretsArn` holds `{client_secret, signing_secret}` when the deployment has a Slack app
 * (`slackClientId`); without one the chat routes answer 403 chat_not_configured, by choice.
 */
export async function checkChatSecret(
  secrets: SecretsManagerClient,
  arn: string,
  region: string,
  slackClientId: string | undefined,
): Promise<Check> {
  const name = 'slack secrets';
  if (slackClientId === undefined) return ok(name, 'no Slack app (no slackClientId): the chat routes answer 403 chat_not_configured');
  const put = `aws secretsmanager put-secret-value --secret-id ${arn} --secret-string '{"client_secret":"…","signing_secret":"…"}' (the Slack app's Basic Information page; docs/deploy.md, "Slack")`;
  const { deleted, changed } = await scheduledForDeletion(secrets, arn);
  if (deleted) return fail(name, `ChatAppSecretsArn is scheduled for deletion on ${day(deleted)}`, restore(arn));
  try {
    await chatSettings({ REGION: region, SLACK_CLIENT_ID: slackClientId, SLACK_SECRETS_ARN: arn });
    return ok(name, `ChatAppSecretsArn holds the client and signing secrets of Slack app ${slackClientId} (set ${day(changed)})`);
  } catch (error) {
    if (!isShapeRefusal(error)) throw error;
    const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: arn }));
    return fail(
      name,
      `ChatAppSecretsArn is not {client_secret, signing_secret}: ${whatIsWrong(SecretString, chatFields)}; the chat routes fail until it is set`,
      put,
    );
  }
}
