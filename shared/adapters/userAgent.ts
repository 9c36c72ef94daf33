import Bowser from 'bowser';

/** The coarse family of a user agent, as a receipt keeps it: browser and OS names, no versions. */
export interface DeviceFamily {
  browser: string | null;
  os: string | null;
}

/**
 * Reduces a user agent to its browser and OS family with bowser (a well-kept parser, MIT), so
 * a receipt never keeps the string itself. Only the relay parses: no API bundle carries it.
 */
export function deviceFamily(userAgent: string | undefined): DeviceFamily | null {
  if (!userAgent) return null;
  const parsed = Bowser.parse(userAgent);
  const browser = parsed.browser.name || null;
  const os = parsed.os.name || null;
  return browser === null && os === null ? null : { browser, os };
}
