/**
 * Private labels of secrets and requests (docs/adr/0180): sealed in this browser with AES-256-GCM
 * under a non-extractable key kept in IndexedDB (`hushlink-labels`), so the server stores only
 * bytes it cannot read. Only this browser profile has the key: a label sealed in another reads as
 * `labelElsewhere`, as does one whose key went with the site's data.
 *
 * The wire form (`label_envelope`, standard base64): a version byte, a fresh 12-byte IV, then the
 * ciphertext and its tag. The AAD is fixed: a label is a name, not bound to the item it names
 * (the item's id is not known before it is created).
 */
import { buf, utf8 } from '../../shared/envelope/index.ts';
import { t } from './i18n.ts';
import { keptKey, readKeptKey } from './keptKeys.ts';

const dbName = 'hushlink-labels';
const dbVersion = 1;
const keyStore = 'keys';
const keyName = 'label-key';
const version = 1;
const ivBytes = 12;
const tagBytes = 16;
const aad = buf(utf8.encode('hushlink/label/v1'));
/** What the server keeps at most (shared/domain/secrets/rules.ts's `labelEnvelopeBytes`). */
const envelopeBytes = 512;
/** The label's own UTF-8 bytes that fit in the envelope. */
export const labelTextBytes = envelopeBytes - 1 - ivBytes - tagBytes;

/** Shown instead of a label this browser cannot open. */
export const labelElsewhere = t('labels.elsewhere');

/** The label is longer than an envelope holds (its UTF-8 bytes, not its characters, count). */
export class LabelTooLong extends Error {
  constructor() {
    super(t('labels.tooLong', { bytes: labelTextBytes, characters: Math.floor(labelTextBytes / 4) }));
    this.name = 'LabelTooLong';
  }
}

/** IndexedDB is missing or refused (some private windows): no label can be sealed. */
export class LabelStoreUnavailable extends Error {
  constructor(cause?: unknown) {
    super(t('labels.storeUnavailable'), cause === undefined ? undefined : { cause });
    this.name = 'LabelStoreUnavailable';
  }
}

let opened: Promise<IDBDatabase> | null = null;

function database(): Promise<IDBDatabase> {
  opened ??= new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(dbName, dbVersion);
    request.onupgradeneeded = () => {
      if (!request.result.objectStoreNames.contains(keyStore)) request.result.createObjectStore(keyStore);
    };
    request.onsuccess = () => {
      const db = request.result;
      db.onversionchange = () => {
        db.close();
        opened = null;
      };
      resolve(db);
    };
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error('another tab holds an older version of the label store'));
  }).catch((error: unknown) => {
    opened = null;
    throw new LabelStoreUnavailable(error);
  });
  return opened;
}

/** Does this browser already have a label store? Reading labels never creates one (nor the key). */
async function storeExists(): Promise<boolean> {
  if (typeof indexedDB === 'undefined') return false;
  if (typeof indexedDB.databases !== 'function') return true;
  return (await indexedDB.databases()).some((entry) => entry.name === dbName);
}

/** The label key, made on first use (`keptKey`: one for every tab). */
const labelKey = async () => keptKey(await database(), keyStore, keyName);

const toBase64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(''));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));

/** A label sealed for `label_envelope`, or undefined for none (blank). Throws LabelTooLong or LabelStoreUnavailable. */
export async function sealLabel(text: string): Promise<string | undefined> {
  const label = text.trim();
  if (label === '') return undefined;
  const plaintext = utf8.encode(label);
  if (plaintext.length > labelTextBytes) throw new LabelTooLong();
  const key = await labelKey();
  const iv = crypto.getRandomValues(new Uint8Array(ivBytes));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad }, key, buf(plaintext)));
  const envelope = new Uint8Array(1 + ivBytes + sealed.length);
  envelope[0] = version;
  envelope.set(iv, 1);
  envelope.set(sealed, 1 + ivBytes);
  return toBase64(envelope);
}

/**
 * A label as this browser reads it: its text, or `labelElsewhere` when the key is not here (or is
 * not the one that sealed it). Never throws; never makes a key.
 */
export async function openLabel(envelope: string): Promise<string> {
  try {
    if (!(await storeExists())) return labelElsewhere;
    const key = await readKeptKey(await database(), keyStore, keyName);
    if (!key) return labelElsewhere;
    const bytes = fromBase64(envelope);
    if (bytes[0] !== version || bytes.length < 1 + ivBytes + tagBytes) return labelElsewhere;
    const iv = bytes.slice(1, 1 + ivBytes);
    const plaintext = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: aad }, key, buf(bytes.slice(1 + ivBytes)));
    return new TextDecoder().decode(plaintext);
  } catch {
    return labelElsewhere;
  }
}
