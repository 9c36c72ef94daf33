/**
 * What this browser keeps of the request links it made, in IndexedDB (`hushlink-requests`), per
 * request id: the key pair, whose private key is a non-extractable CryptoKey (no script, ours
 * included, can read its bytes), the link's fingerprint and origin, and the link's secret `s`,
 * sealed with AES-256-GCM under a device key that is itself a non-extractable CryptoKey kept in
 * the same database. `s` is needed again to open responses (the PSK comes from it) and to show
 * the link again; it is never stored as plain bytes (docs/web.md, "Request a secret", says why).
 *
 * Only this browser profile on this device has these: another browser, or this one after its
 * site data is cleared, lists the requests but cannot open their responses.
 */
import { buf, utf8, type RequesterKeys, type RequestKem, type RequestLink } from '../../shared/envelope/index.ts';
import { t } from './i18n.ts';
import { finished, keptKey, settle } from './keptKeys.ts';

const dbName = 'hushlink-requests';
const dbVersion = 1;
/** `device`: the one AES-GCM key that seals every request's `s`. */
const deviceStore = 'device';
const deviceKeyName = 'link-secret-key';
/** `requests`: one record per request id. */
const requestStore = 'requests';

/** As stored: structured clones (CryptoKeys stay CryptoKeys, non-extractable as made). */
interface StoredRequest {
  id: string;
  kem: RequestKem;
  publicKey: Uint8Array;
  privateKey: CryptoKey;
  fingerprint: string;
  /** The link without its fragment (`url_base`), to show the link again. */
  urlBase: string;
  /** `s` under the device key: AES-256-GCM, a fresh 12-byte IV, the request id as AAD. */
  sealedSecret: { iv: Uint8Array; ciphertext: Uint8Array };
  createdAt: string;
}

/** What opens a request's responses, and shows its link again. */
export interface DeviceRequest {
  keys: RequesterKeys;
  link: RequestLink;
  urlBase: string;
}

/** IndexedDB is missing or refused (some private windows, storage disabled, a failing disk). */
export class KeyStoreUnavailable extends Error {
  constructor(cause?: unknown) {
    super(t('requests.keys.unavailable'), cause === undefined ? undefined : { cause });
    this.name = 'KeyStoreUnavailable';
  }
}

/** The AAD of a request's sealed `s`: a record moved under another request's id does not open. */
const secretAad = (id: string) => buf(utf8.encode(`hushlink/v1/request-link-secret/${id}`));

let opened: Promise<IDBDatabase> | null = null;

function database(): Promise<IDBDatabase> {
  opened ??= new Promise<IDBDatabase>((resolve, reject) => {
    let request: IDBOpenDBRequest;
    try {
      request = indexedDB.open(dbName, dbVersion);
    } catch (error) {
      reject(new KeyStoreUnavailable(error));
      return;
    }
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(deviceStore)) db.createObjectStore(deviceStore);
      if (!db.objectStoreNames.contains(requestStore)) db.createObjectStore(requestStore, { keyPath: 'id' });
    };
    request.onsuccess = () => {
      const db = request.result;
      // A newer version of this page in another tab wants to upgrade: let it.
      db.onversionchange = () => {
        db.close();
        opened = null;
      };
      resolve(db);
    };
    request.onerror = () => reject(new KeyStoreUnavailable(request.error));
    request.onblocked = () => reject(new KeyStoreUnavailable(new Error('another tab holds an older version of the key store')));
  }).catch((error: unknown) => {
    opened = null;
    throw error instanceof KeyStoreUnavailable ? error : new KeyStoreUnavailable(error);
  });
  return opened;
}

/** The device key, made on first use (`keptKey`: one for every tab). */
const deviceKey = (db: IDBDatabase) => keptKey(db, deviceStore, deviceKeyName);

/** Opens the store (and makes the device key): before a request is created, so a browser that cannot keep keys says so first. */
export async function openKeyStore(): Promise<void> {
  try {
    await deviceKey(await database());
  } catch (error) {
    throw error instanceof KeyStoreUnavailable ? error : new KeyStoreUnavailable(error);
  }
}

/** Keeps a new request's keys and link; throws `KeyStoreUnavailable` when the browser refuses. */
export async function keepRequest(id: string, urlBase: string, keys: RequesterKeys, link: RequestLink): Promise<void> {
  try {
    const db = await database();
    const key = await deviceKey(db);
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const ciphertext = new Uint8Array(
      await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: secretAad(id) }, key, buf(link.linkSecret)),
    );
    const record: StoredRequest = {
      id,
      kem: keys.kem,
      publicKey: keys.publicKey,
      privateKey: keys.privateKey,
      fingerprint: link.fingerprint,
      urlBase,
      sealedSecret: { iv, ciphertext },
      createdAt: new Date().toISOString(),
    };
    const transaction = db.transaction(requestStore, 'readwrite');
    transaction.objectStore(requestStore).put(record);
    await finished(transaction);
  } catch (error) {
    throw error instanceof KeyStoreUnavailable ? error : new KeyStoreUnavailable(error);
  }
}

/** The ids of the requests this browser holds keys for (empty when it cannot keep any). */
export async function keptRequestIds(): Promise<Set<string>> {
  try {
    const db = await database();
    return new Set((await settle(db.transaction(requestStore).objectStore(requestStore).getAllKeys())).map(String));
  } catch {
    return new Set();
  }
}

/** A request's keys and link, `s` opened with the device key; null when this browser has none for it. */
export async function loadRequest(id: string): Promise<DeviceRequest | null> {
  const db = await database();
  const record = await settle(db.transaction(requestStore).objectStore(requestStore).get(id) as IDBRequest<StoredRequest | undefined>);
  if (!record) return null;
  const key = await deviceKey(db);
  const { iv, ciphertext } = record.sealedSecret;
  const linkSecret = new Uint8Array(
    await crypto.subtle.decrypt({ name: 'AES-GCM', iv: buf(iv), additionalData: secretAad(id) }, key, buf(ciphertext)),
  );
  return {
    keys: { kem: record.kem, publicKey: record.publicKey, privateKey: record.privateKey },
    link: { fingerprint: record.fingerprint, linkSecret },
    urlBase: record.urlBase,
  };
}
