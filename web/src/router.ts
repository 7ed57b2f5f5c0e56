/**
 * The SPA's routes. The server answers the same paths with index.html (server/rest/webRoutes.ts); /console is
 * where the API-key console will live.
 */
import { createRouter, createWebHistory } from 'vue-router';
import NotFound from './pages/NotFound.vue';

export const router = createRouter({
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
      path: '/console/:rest(.*)*',
      name: 'console',
      component: () => import('./pages/ConsolePlaceholder.vue'),
    },
    { path: '/:path(.*)*', name: 'not-found', component: NotFound },
  ],
  scrollBehavior: (_to, _from, saved) => saved ?? { top: 0 },
});

router.afterEach((to) => {
  if (to.name !== 'shared-report') document.title = to.name === 'not-found' ? '页面不存在' : '财务报告分析';
});
