import * as z from 'zod/mini';

/**
 * The chat integration (issue 19, interface §4.9), the chat group's contract. Slack's redirect
 * and its slash command are read as Slack sends them: the callback's query loosely (Slack may add
 * parameters), the command as the form it is, read by the route after its signature.
 */
const param = z.optional(z.string().check(z.maxLength(2048)));

export const chatRequests = {
  ChatCallbackQuery: z.looseObject({ code: param, state: param, error: param }),
  ChatSubscribeRequest: z.strictObject({
    secret_id: z.string().check(z.minLength(1), z.maxLength(64)),
    delete_token: z.string().check(z.minLength(1), z.maxLength(128)),
    chat_token: z.string().check(z.minLength(1), z.maxLength(2048)),
  }),
};

export const chatReplies = {
  /** Where to send the browser: Slack's authorize page, with a state good for 10 minutes, once. */
  ChatInstallStarted: z.strictObject({ authorize_url: z.url() }),
  /** Slack's ephemeral reply: seen by the one who typed the command, never posted to the channel. */
  ChatCommandReply: z.strictObject({ response_type: z.literal('ephemeral'), text: z.string() }),
  ChatSubscribed: z.strictObject({ subscribed: z.literal(true) }),
};
