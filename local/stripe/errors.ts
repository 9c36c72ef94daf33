/**
 * Stripe's error answer, `{error: {type, code, message, param, doc_url, request_log_url}}`, with
 * the statuses Stripe gives: 400 for a bad parameter (a missing object named by a parameter
 * too), 404 for a missing object in the path or an unknown URL, 401 for the key. The SDK picks
 * its error class from the status and `type` (StripeInvalidRequestError,
 * StripeIdempotencyError, StripeAuthenticationError).
 */
export type StripeErrorType = 'invalid_request_error' | 'idempotency_error' | 'api_error';

export interface StripeErrorDetails {
  type: StripeErrorType;
  message: string;
  code?: string;
  param?: string;
}

export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly details: StripeErrorDetails,
  ) {
    super(details.message);
  }
}

/** The body Stripe answers an error with; `doc_url` only where there is a code. */
export function errorBody(error: StripeApiError, requestId: string): { error: Record<string, string> } {
  const { type, code, message, param } = error.details;
  return {
    error: {
      ...(code ? { code, doc_url: `https://stripe.com/docs/error-codes/${code.replaceAll('_', '-')}` } : {}),
      message,
      ...(param ? { param } : {}),
      request_log_url: `https://dashboard.stripe.com/test/logs/${requestId}`,
      type,
    },
  };
}

export const invalidRequest = (message: string, options: { code?: string; param?: string; status?: number } = {}): StripeApiError =>
  new StripeApiError(options.status ?? 400, {
    type: 'invalid_request_error',
    message,
    ...(options.code ? { code: options.code } : {}),
    ...(options.param ? { param: options.param } : {}),
  });

/** An object that does not exist: 404 when the path names it, 400 when a parameter does. */
export const noSuch = (kind: string, id: string, param: string): StripeApiError =>
  invalidRequest(`No such ${kind}: '${id}'`, { code: 'resource_missing', param, status: param === 'id' ? 404 : 400 });

export const missingParam = (param: string): StripeApiError =>
  invalidRequest(`Missing required param: ${param}.`, { code: 'parameter_missing', param });

export const unknownParam = (param: string): StripeApiError =>
  invalidRequest(`Received unknown parameter: ${param}`, { code: 'parameter_unknown', param });

export const unrecognizedUrl = (method: string, path: string): StripeApiError =>
  invalidRequest(
    `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    { status: 404 },
  );

/**
 * Stripe's answer to a portal session before the account's customer portal settings were saved
 * in the Dashboard: a 400 with no code, only this message (test mode's; live mode's names live
 * mode and the Dashboard page without `/test`).
 */
export const portalNotConfigured = (): StripeApiError =>
  invalidRequest(
    'You can’t create a portal session in test mode until you save your customer portal settings in test mode at https://dashboard.stripe.com/test/settings/billing/portal.',
  );
