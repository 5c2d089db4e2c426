import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, OperatorApi } from './api';
import type { SignedInSession } from '../../lib/contract/operator-api';
import { ConsoleContext } from './context';
import { LANGUAGES, languageOfTag, loadLanguage, storedLanguage, storeLanguage, translator, type Language, type MessageKey } from './i18n';
import { explain, loginTokenOf, parseRoute, type Route } from './view-model';
import { setTabTitle } from './tab-title';
import { Shell } from './views/shell';

type Auth = { readonly kind: 'booting' } | { readonly kind: 'signedOut'; readonly notice?: MessageKey; readonly failed?: boolean } | { readonly kind: 'signedIn'; readonly session: SignedInSession };

/** localStorage may be unavailable (private modes, blocked storage): the console then forgets the language. */
function preferences(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

/** The language an operator picked on this browser, else the pipeline's (the page's `lang`). */
export function startingLanguage(): Language {
  return storedLanguage(preferences(), languageOfTag(document.documentElement.lang));
}

/** The console, speaking `initialLanguage` (already loaded) until the operator picks another. */
export function App({ initialLanguage }: { readonly initialLanguage: Language }) {
  const [language, setLanguage] = useState<Language>(initialLanguage);
  const t = useMemo(() => translator(language), [language]);
  const [auth, setAuth] = useState<Auth>({ kind: 'booting' });
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  const api = useMemo(() => new OperatorApi(() => setAuth({ kind: 'signedOut', notice: 'signIn.expired' })), []);

  useEffect(() => {
    document.documentElement.lang = LANGUAGES[language].tag;
    // Signed in, the shell's title names the screen too.
    if (auth.kind !== 'signedIn') setTabTitle({ app: t('app.title'), screen: undefined, waiting: 0 });
  }, [t, language, auth.kind]);
  useEffect(() => {
    const onHashChange = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', onHashChange);
    void boot(api).then(setAuth);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, [api]);

  const switchLanguage = async (next: Language) => {
    await loadLanguage(next);
    storeLanguage(preferences(), next);
    setLanguage(next);
  };
  const signOut = async () => {
    try {
      await api.signOut();
    } finally {
      history.replaceState(null, '', '/');
      setAuth({ kind: 'signedOut', notice: 'signIn.signedOut' });
    }
  };

  if (auth.kind === 'signedIn') {
    return (
      <ConsoleContext.Provider value={{ t, language, api, session: auth.session }}>
        <Shell route={route} onSignOut={signOut} languageToggle={<LanguageSwitch current={language} onSwitch={switchLanguage} />} />
      </ConsoleContext.Provider>
    );
  }
  return (
    <main id="main" class="sign-in">
      <div class="sign-in-top">
        <LanguageSwitch current={language} onSwitch={switchLanguage} />
      </div>
      <h1>{t('app.title')}</h1>
      <h2>{t('signIn.heading')}</h2>
      {auth.kind === 'booting' ? (
        <p role="status">{t('signIn.signingIn')}</p>
      ) : (
        <>
          {auth.notice !== undefined && (
            <p class={auth.failed ? 'feedback feedback-error' : 'feedback feedback-ok'} role={auth.failed ? 'alert' : 'status'}>
              {t(auth.notice)}
            </p>
          )}
          <p>{t('signIn.howTo')}</p>
        </>
      )}
    </main>
  );
}

/**
 * A login link carries a one-time token in its fragment: it is taken out of the address bar (and the
 * history) before it is used, then exchanged for a session. Otherwise the session cookie decides.
 */
async function boot(api: OperatorApi): Promise<Auth> {
  const token = loginTokenOf(location.pathname, location.hash);
  if (token !== undefined) history.replaceState(null, '', '/');
  try {
    const session = token === undefined ? await api.currentSession() : await api.signIn(token);
    return session === undefined ? { kind: 'signedOut' } : { kind: 'signedIn', session };
  } catch (error) {
    return { kind: 'signedOut', notice: explain(error instanceof ApiError ? error.status : undefined, 'signIn'), failed: true };
  }
}

/** One button per other language, each named in its own words. */
function LanguageSwitch({ current, onSwitch }: { readonly current: Language; readonly onSwitch: (language: Language) => Promise<void> }) {
  const others = (Object.keys(LANGUAGES) as Language[]).filter((language) => language !== current);
  return (
    <>
      {others.map((language) => (
        <button key={language} type="button" class="link-button" lang={LANGUAGES[language].tag} onClick={() => void onSwitch(language)}>
          {LANGUAGES[language].name}
        </button>
      ))}
    </>
  );
}
