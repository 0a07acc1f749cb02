/** The address's search parameters as they are now, not as the page last rendered them.
 *
 * A page that builds its next address from the state of its last render loses a change made
 * before React renders again: two pickers changed in quick succession on a busy machine (x, then
 * group) left only the second, because the router's render of the first runs as a transition.
 * A navigation has written the address bar by then, so a patch is applied to what it holds. */
export function searchNow(): URLSearchParams {
  return new URLSearchParams(window.location.search);
}
