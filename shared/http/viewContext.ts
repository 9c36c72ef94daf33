import { viewChannels, type ViewChannel, type ViewContext } from '../domain/secrets/model.ts';
import { secretLimits } from '../limits.ts';
import { throughCloudFront } from './clientAddress.ts';

/** Our clients name themselves in this header; anything else is `api`. */
export const clientHeader = 'x-hushlink-client';

/**
 * Where a claim comes from, for its receipt: the channel our clients name, CloudFront's
 * viewer country and region (only when the request proves it came through CloudFront, like
 * the viewer address: a direct call could forge them), and the user agent, cut short. Never
 * the address.
 */
export function viewContext(headers: Record<string, string | undefined>, originSecret: string | undefined): ViewContext {
  const named = headers[clientHeader]?.trim().toLowerCase();
  const channel: ViewChannel = viewChannels.includes(named as ViewChannel) && named !== 'api' ? (named as ViewChannel) : 'api';
  const trusted = throughCloudFront(headers, originSecret);
  const country = trusted ? headers['cloudfront-viewer-country'] : undefined;
  const region = trusted ? headers['cloudfront-viewer-country-region'] : undefined;
  const userAgent = headers['user-agent']?.slice(0, secretLimits.userAgentChars);
  return {
    channel,
    ...(country && /^[A-Z]{2}$/.test(country) ? { country } : {}),
    ...(country && region && /^[A-Z0-9]{1,3}$/.test(region) ? { region } : {}),
    ...(userAgent ? { userAgent } : {}),
  };
}
