/**
 * The console's session, shared by every console page: who is signed in, the CSRF token, and the mode
 * (test or live) the console works in. The session cookie itself is HttpOnly — this code never sees it; it
 * learns whether there is one from GET /api/v1/console/session.
 *
 * Any request that answers 401 (the session expired or was ended elsewhere) clears the state; the console
 * layout watches `signedIn` and returns to the sign-in page.
 */
import { computed, reactive, readonly } from 'vue';
import { ConsoleApiError, changePassword, fetchSession, logIn, logOut, signUp } from '../api/console.ts';
import { graphqlRequest } from '../api/graphql.ts';
import { type ConsoleMode, isConsoleMode } from '../lib/console.ts';

const MODE_STORAGE_KEY = 'fra-console-mode';

function storedMode(): ConsoleMode {
  try {
    const value = localStorage.getItem(MODE_STORAGE_KEY);
    return isConsoleMode(value) ? value : 'test';
  } catch {
    return 'test'; // storage disabled
  }
}

const state = reactive({
  /** Whether the server has been asked yet (the first console page asks once). */
  checked: false,
  email: null as string | null,
  csrfToken: null as string | null,
  mode: storedMode(),
  /** Set when a request found the session gone; the sign-in page says so. */
  expired: false,
});

let pending: Promise<boolean> | null = null;

function adopt(session: { email: string; csrf_token: string } | null) {
  state.email = session?.email ?? null;
  state.csrfToken = session?.csrf_token ?? null;
  state.checked = true;
  if (session) state.expired = false;
}

/** Whether someone is signed in; asks the server the first time only (network errors count as "no"). */
function ensure(): Promise<boolean> {
  if (state.checked) return Promise.resolve(state.email !== null);
  pending ??= fetchSession()
    .then(adopt, () => adopt(null))
    .then(() => state.email !== null)
    .finally(() => {
      pending = null;
    });
  return pending;
}

function expire() {
  adopt(null);
  state.expired = true;
}

/** A GraphQL operation with the session's token and mode; a 401 ends the session here too. */
async function query<T>(document: string, variables: Record<string, unknown> = {}): Promise<T> {
  if (!state.csrfToken) {
    expire();
    throw new ConsoleApiError(401, 'unauthenticated', 'Not signed in.');
  }
  try {
    return await graphqlRequest<T>(document, variables, { csrfToken: state.csrfToken, mode: state.mode });
  } catch (error) {
    if (error instanceof ConsoleApiError && error.code === 'unauthenticated') expire();
    throw error;
  }
}

export function useConsoleSession() {
  return {
    state: readonly(state),
    signedIn: computed(() => state.email !== null),
    ensure,
    query,
    expire,
    async signIn(email: string, password: string) {
      adopt(await logIn(email, password));
    },
    async signUp(email: string, password: string) {
      adopt(await signUp(email, password));
    },
    async changePassword(currentPassword: string, newPassword: string) {
      if (!state.csrfToken) {
        expire();
        throw new ConsoleApiError(401, 'unauthenticated', 'Not signed in.');
      }
      try {
        const changed = await changePassword(state.csrfToken, currentPassword, newPassword);
        adopt(changed);
        return changed.recent_keys;
      } catch (error) {
        if (error instanceof ConsoleApiError && error.status === 401) expire();
        throw error;
      }
    },
    async signOut() {
      try {
        await logOut(state.csrfToken);
      } finally {
        adopt(null);
      }
    },
    setMode(mode: ConsoleMode) {
      state.mode = mode;
      try {
        localStorage.setItem(MODE_STORAGE_KEY, mode);
      } catch {
        // storage disabled: the mode lasts for this page only
      }
    },
  };
}
