/** The 404 page (web/public/404.html): the header's signed-in state, and "My secrets" when signed in. */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import './i18n.ts';
import { startNav } from './nav.ts';

void startNav().then(() => {
  document.documentElement.dataset.ready = 'not-found';
});
