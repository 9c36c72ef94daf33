/**
 * What this config folder keeps of the request links `hushlink request` made (requests.json,
 * mode 0600, by API URL then request id): the key pair, its private key as its scalar, and the
 * link's fingerprint and secret `s`, which the PSK that opens each response comes from and
 * which shows the link again. The browser seals `s` under a device key it cannot export; here
 * the file's mode guards `s` as it guards the private key beside it, which is worth as much.
 */
import {
  exportRequesterKeys,
  fromBase64Url,
  importRequesterKeys,
  requestFragment,
  toBase64Url,
  type RequesterKeys,
  type RequestKem,
  type RequestLink,
} from '../../shared/envelope/index.ts';
import { ConfigFile, configDir } from './config.ts';

interface StoredRequest {
  kem: RequestKem;
  /** base64url, as the API carries it. */
  public_key: string;
  /** base64url of the private scalar (JWK `d`). */
  private_key: string;
  fingerprint: string;
  /** `s`, base64url. */
  link_secret: string;
  /** The link without its fragment. */
  url_base: string;
  created_at: string;
}

/** Request keys by API URL, then by request id. */
export type RequestKeysFile = Record<string, Record<string, StoredRequest>>;

export const requestKeysFile = (env: NodeJS.ProcessEnv) => new ConfigFile<RequestKeysFile>(configDir(env), 'requests.json');

/** What opens a request's responses, and shows its link again. */
export interface KeptRequest {
  keys: RequesterKeys;
  link: RequestLink;
  urlBase: string;
}

export async function keepRequest(
  env: NodeJS.ProcessEnv,
  api: string,
  id: string,
  kept: { keys: RequesterKeys; link: RequestLink; urlBase: string },
): Promise<void> {
  const exported = await exportRequesterKeys(kept.keys);
  const stored: StoredRequest = {
    kem: exported.kem,
    public_key: exported.publicKey,
    private_key: exported.privateKey,
    fingerprint: kept.link.fingerprint,
    link_secret: toBase64Url(kept.link.linkSecret),
    url_base: kept.urlBase,
    created_at: new Date().toISOString(),
  };
  await requestKeysFile(env).update((file) => ({ value: { ...file, [api]: { ...file?.[api], [id]: stored } }, result: undefined }));
}

/** The ids of the requests this folder holds keys for at `api`. */
export async function keptRequestIds(env: NodeJS.ProcessEnv, api: string): Promise<Set<string>> {
  return new Set(Object.keys((await requestKeysFile(env).read())?.[api] ?? {}));
}

/**
 * A request's keys and link, or null when this folder has none for it (made in a browser or
 * with another config folder). A private key that is not the public key's is `key_mismatch`.
 */
export async function loadRequest(env: NodeJS.ProcessEnv, api: string, id: string): Promise<KeptRequest | null> {
  const stored = (await requestKeysFile(env).read())?.[api]?.[id];
  if (!stored) return null;
  const keys = await importRequesterKeys({ kem: stored.kem, publicKey: stored.public_key, privateKey: stored.private_key });
  return { keys, link: { fingerprint: stored.fingerprint, linkSecret: fromBase64Url(stored.link_secret) }, urlBase: stored.url_base };
}

/** The whole link: `url_base#<fingerprint>.<s>`. */
export const requestLinkOf = (kept: Pick<KeptRequest, 'link' | 'urlBase'>): string =>
  `${kept.urlBase}#${requestFragment(kept.link.fingerprint, kept.link.linkSecret)}`;
