import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useConsole } from '../context';
import type { MessageKey } from '../i18n';
import { hrefOf, type AdminScreen, type Route } from '../view-model';
import { setTabTitle } from '../tab-title';
import { Attention } from './attention';
import { describeFailure, FeedbackLine, type Feedback } from './common';
import { ConversationScreen } from './conversation';
import { InboxScreen } from './inbox';

const ADMIN_LINKS: readonly (readonly [AdminScreen, MessageKey])[] = [
  ['prompts', 'nav.prompts'],
  ['scenarios', 'nav.scenarios'],
  ['operators', 'nav.operators'],
  ['config', 'nav.config'],
  ['templates', 'nav.templates'],
  ['quick-replies', 'nav.quickReplies'],
  ['reports', 'nav.reports'],
  ['demands', 'nav.demands'],
  ['consents', 'nav.consents'],
  ['audit', 'nav.audit'],
  ['crm', 'nav.crm'],
  ['dead-letters', 'nav.deadLetters'],
  ['customers', 'nav.customers'],
];

export interface ShellProps {
  readonly route: Route;
  readonly onSignOut: () => void;
  readonly languageToggle: ComponentChildren;
}

/** The words the tab title starts with: the screen's name, so a person with several tabs tells them apart. */
function screenName(route: Route): MessageKey {
  if (route.kind === 'inbox') return 'nav.inbox';
  if (route.kind === 'conversation') return 'nav.conversation';
  return ADMIN_LINKS.find(([screen]) => screen === route.screen)?.[1] ?? 'nav.inbox';
}

/** The zone the console's times are shown in: the device's, which a person sharing a screen may not share. */
const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * The signed-in frame: the title, then who, availability, alerts, language and sign-out, then the
 * sections: the inbox, and for admins their screens under one group. On a phone all but the title
 * fold behind a menu button, so the header is one line; picking a section folds them again.
 */
export function Shell({ route, onSignOut, languageToggle }: ShellProps) {
  const { t, session } = useConsole();
  const isAdmin = session.role === 'admin';
  const current = hrefOf(route);
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    setTabTitle({ app: t('app.title'), screen: t(screenName(route)) });
  }, [t, current]);
  const folded = (name: string) => (menuOpen ? `${name} ${name}-open` : name);
  const closeOnLink = (event: Event) => {
    if ((event.target as Element).closest('a')) setMenuOpen(false);
  };
  return (
    <>
      <a class="skip-link" href="#main">
        {t('app.skip')}
      </a>
      <header class="topbar">
        <h1>{t('app.title')}</h1>
        <button type="button" class="menu-button" aria-expanded={menuOpen} aria-controls="session-controls sections" onClick={() => setMenuOpen(!menuOpen)}>
          <span class="menu-icon" aria-hidden="true" />
          {t('nav.menu')}
        </button>
        <div id="session-controls" class={folded('session')}>
          <p class="who">
            {t('session.signedInAs', { name: session.operator.name ?? session.operator.phone })}
            <span class="time-zone">{t('session.timeZone', { zone: TIME_ZONE })}</span>
          </p>
          <div class="topbar-controls">
            <AvailabilitySwitch />
            <Attention />
            {languageToggle}
            <button type="button" onClick={onSignOut}>
              {t('session.signOut')}
            </button>
          </div>
        </div>
      </header>
      <nav id="sections" class={folded('sections')} aria-label={t('nav.label')} onClick={closeOnLink}>
        <SectionLink href="#/inbox" labelKey="nav.inbox" current={current} />
        {isAdmin && <AdminSections current={current} />}
      </nav>
      <main id="main" tabIndex={-1}>
        <Screen route={route} isAdmin={isAdmin} />
      </main>
    </>
  );
}

function SectionLink({ href, labelKey, current }: { readonly href: string; readonly labelKey: MessageKey; readonly current: string }) {
  const { t } = useConsole();
  return (
    <a href={href} aria-current={current.startsWith(href) ? 'page' : undefined}>
      {t(labelKey)}
    </a>
  );
}

/**
 * The admin screens under one disclosure button, which names the one open: one row of sections on
 * a desktop however many screens there are. It closes when a screen is picked, on Escape (focus
 * back on the button) and on a click elsewhere.
 */
function AdminSections({ current }: { readonly current: string }) {
  const { t } = useConsole();
  const [open, setOpen] = useState(false);
  const group = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const shown = ADMIN_LINKS.find(([screen]) => current.startsWith(hrefOf({ kind: 'admin', screen })));
  useEffect(() => {
    if (!open) return undefined;
    const onPointer = (event: PointerEvent) => {
      if (!group.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return (
    <div class={shown ? 'section-group section-group-current' : 'section-group'} ref={group}>
      <button type="button" ref={button} class="section-group-button" aria-expanded={open} aria-controls="admin-sections" onClick={() => setOpen(!open)}>
        {t('nav.admin')}
        {shown && <span class="section-group-shown">{t(shown[1])}</span>}
      </button>
      <ul id="admin-sections" class="section-group-links" hidden={!open} onClick={(event) => (event.target as Element).closest('a') && setOpen(false)}>
        {ADMIN_LINKS.map(([screen, label]) => (
          <li key={screen}>
            <SectionLink href={hrefOf({ kind: 'admin', screen })} labelKey={label} current={current} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function Screen({ route, isAdmin }: { readonly route: Route; readonly isAdmin: boolean }) {
  if (route.kind === 'inbox') return <InboxScreen tab={route.tab} />;
  if (route.kind === 'conversation') return <ConversationScreen customerId={route.customerId} />;
  if (!isAdmin) return <InboxScreen tab="waiting" />;
  return <LazyAdminScreen screen={route.screen} />;
}

/**
 * The admin screens load when an admin first opens one: operators, most of the console's users,
 * never download them, and the first load stays within its budget.
 */
function LazyAdminScreen({ screen }: { readonly screen: AdminScreen }) {
  const { t } = useConsole();
  const [screens, setScreens] = useState<typeof import('./admin-screens')>();
  const [failed, setFailed] = useState<unknown>();
  useEffect(() => {
    import('./admin-screens').then(setScreens, setFailed);
  }, []);
  if (failed !== undefined) return <p role="alert">{describeFailure(t, failed, 'load')}</p>;
  return screens === undefined ? <p role="status">{t('loading')}</p> : <screens.AdminScreenView screen={screen} />;
}

/** Whether this operator is paged when a customer asks for a person. */
function AvailabilitySwitch() {
  const { t, api, session } = useConsole();
  const [available, setAvailable] = useState(session.available);
  const [busy, setBusy] = useState(false);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const toggle = async () => {
    setBusy(true);
    try {
      setAvailable((await api.setAvailability(!available)).available);
      setFeedback(undefined);
    } catch (error) {
      setFeedback({ kind: 'error', text: describeFailure(t, error, 'availability') });
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="availability">
      <button type="button" role="switch" aria-checked={available} disabled={busy} onClick={toggle} class="switch">
        <span class="switch-track" aria-hidden="true" />
        {t('availability.label')}
      </button>
      <FeedbackLine feedback={feedback} />
    </span>
  );
}
