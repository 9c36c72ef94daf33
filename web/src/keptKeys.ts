/**
 * What the pages' IndexedDB key stores share (request links' device key, labels' key): a request
 * and a transaction as promises, and a non-extractable AES-GCM key made once per store and
 * agreed on by every tab.
 */
import { t } from './i18n.ts';

export const settle = <T>(request: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

export const finished = (transaction: IDBTransaction) =>
  new Promise<void>((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error ?? new Error(t('common.keyStore.aborted')));
  });

/** The key kept under `name` in `storeName`, or undefined when none was made yet. */
export const readKeptKey = (db: IDBDatabase, storeName: string, name: string) =>
  settle(db.transaction(storeName).objectStore(storeName).get(name) as IDBRequest<CryptoKey | undefined>);

/**
 * The AES-256-GCM key kept under `name`, made on first use (non-extractable: no script, ours
 * included, reads its bytes). Made before the transaction (IndexedDB transactions end at the first
 * await of anything else), then added only when none is there, in one transaction: two tabs
 * making their first at once agree on one key.
 */
export async function keptKey(db: IDBDatabase, storeName: string, name: string): Promise<CryptoKey> {
  const existing = await readKeptKey(db, storeName, name);
  if (existing) return existing;
  const fresh = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const transaction = db.transaction(storeName, 'readwrite');
  const store = transaction.objectStore(storeName);
  let chosen = fresh;
  store.get(name).onsuccess = (event) => {
    const found = (event.target as IDBRequest<CryptoKey | undefined>).result;
    if (found) chosen = found;
    else store.add(fresh, name);
  };
  await finished(transaction);
  return chosen;
}
