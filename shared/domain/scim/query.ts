import { scimInvalid, type ScimType } from './model.ts';

/**
 * One parameter of a SCIM request's query, read from the raw query string (the event's
 * `rawQueryString`) as a form is read (WHATWG URLSearchParams): `+` is a space and `%2B` a plus,
 * as issue 18 requires of `filter`. Not from `queryStringParameters`: API Gateway joins a
 * repeated parameter's values with commas there (so `filter=a&filter=b` reads as `a,b`), and its
 * decoding of `+` is not documented for HTTP APIs (REST APIs turn it into a space); the local
 * gateway builds that map with URLSearchParams, so the two could differ unseen.
 *
 * The name is matched whatever its case (`Filter`, `startindex`): a filter under a name the
 * route ignored would list every User. A parameter given more than once is a 400 with
 * `scimType` (the route's: `invalidFilter` for `filter`), not one of its values picked.
 */
export function decodeQueryValue(rawQueryString: string, name: string, scimType: ScimType = 'invalidValue'): string | undefined {
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    if (key.toLowerCase() === wanted) values.push(value);
  }
  if (values.length > 1) throw scimInvalid(`The ${name} query parameter is given ${values.length} times; give it once.`, scimType);
  return values[0];
}
