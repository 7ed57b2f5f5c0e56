/**
 * The SPA's routes. The server answers the same paths with index.html (server/rest/webRoutes.ts).
 *
 * The console (/console…) needs a session: a guard asks the server once (GET /api/v1/console/session) and
 * sends anyone not signed in to /console/login, remembering where they were going. The guard only decides
 * what to show; the API enforces the session on every request anyway.
 */
import { createRouter, createWebHistory, START_LOCATION } from 'vue-router';
import { useConsoleSession } from './composables/useConsoleSession.ts';
import { safeRedirect } from './lib/console.ts';
import NotFound from './pages/NotFound.vue';

declare module 'vue-router' {
  interface RouteMeta {
    /** Console pages that need a signed-in user. */
    requiresSession?: boolean;
    /** Sign-in pages: a signed-in user goes on to the console instead. */
    guestOnly?: boolean;
    title?: string;
  }
}

const CONSOLE_TITLE = '开发者控制台';

/** The app's router (made when the app mounts, not when this module is evaluated: see main.ts). */
export function createAppRouter() {
  const router = createRouter({
    history: createWebHistory(),
    routes: [
      { path: '/', name: 'home', component: () => import('./pages/HomePage.vue') },
      {
        path: '/shared/reports/:token',
        name: 'shared-report',
        component: () => import('./pages/SharedReport.vue'),
        props: true,
      },
      {
        path: '/console/login',
        name: 'console-login',
        component: () => import('./pages/console/ConsoleAuth.vue'),
        props: { kind: 'login' },
        meta: { guestOnly: true, title: `登录 · ${CONSOLE_TITLE}` },
      },
      {
        path: '/console/signup',
        name: 'console-signup',
        component: () => import('./pages/console/ConsoleAuth.vue'),
        props: { kind: 'signup' },
        meta: { guestOnly: true, title: `注册 · ${CONSOLE_TITLE}` },
      },
      {
        path: '/console',
        component: () => import('./pages/console/ConsoleLayout.vue'),
        meta: { requiresSession: true },
        children: [
          {
            path: '',
            name: 'console-keys',
            component: () => import('./pages/console/ApiKeysPage.vue'),
            meta: { title: `API 密钥 · ${CONSOLE_TITLE}` },
          },
          {
            path: 'reports',
            name: 'console-reports',
            component: () => import('./pages/console/ReportsPage.vue'),
            meta: { title: `报告 · ${CONSOLE_TITLE}` },
          },
          {
            path: 'account',
            name: 'console-account',
            component: () => import('./pages/console/AccountPage.vue'),
            meta: { title: `账号 · ${CONSOLE_TITLE}` },
          },
          {
            path: 'import',
            name: 'console-import',
            component: () => import('./pages/console/ImportPage.vue'),
            meta: { title: `导入报表 · ${CONSOLE_TITLE}` },
          },
          {
            path: 'webhooks',
            name: 'console-webhooks',
            component: () => import('./pages/console/WebhooksPage.vue'),
            meta: { title: `Webhooks · ${CONSOLE_TITLE}` },
          },
        ],
      },
      { path: '/:path(.*)*', name: 'not-found', component: NotFound },
    ],
    // A page opened afresh is already at the top (a link to an item is scrolled by the page itself): scrolling
    // there anyway forced a layout of the whole just-rendered report, half of the share page's first long task.
    scrollBehavior: (_to, from, saved) => saved ?? (from === START_LOCATION ? false : { top: 0 }),
  });

  router.beforeEach(async (to) => {
    const session = useConsoleSession();
    if (to.matched.some((record) => record.meta.requiresSession)) {
      if (await session.ensure()) return true;
      return { name: 'console-login', query: to.fullPath === '/console' ? {} : { redirect: to.fullPath } };
    }
    if (to.meta.guestOnly && (await session.ensure())) return safeRedirect(to.query.redirect);
    return true;
  });

  router.afterEach((to) => {
    if (to.name === 'shared-report') return;
    document.title = to.meta.title ?? (to.name === 'not-found' ? '页面不存在' : '财务报告分析');
  });
  return router;
}
