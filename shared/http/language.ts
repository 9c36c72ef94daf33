import { type Language, languageFromAcceptLanguage } from '../languages.ts';

/**
 * The language a request asks for: the first of its `Accept-Language` Hushlink speaks (the web
 * pages send their chosen language there), or undefined when it names none (`*`, absent, only
 * others). Handlers hand it to the use cases that mail, as a plain value (issue 32).
 */
export const requestLanguage = (request: { headers: Record<string, string | undefined> }): Language | undefined =>
  languageFromAcceptLanguage(request.headers['accept-language']);
