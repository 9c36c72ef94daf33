/** The 404 page (web/public/404.html): the header's signed-in state, and "My secrets" when signed in. */
import { startNav } from './nav.ts';

void startNav().then(() => {
  document.documentElement.dataset.ready = 'not-found';
});
