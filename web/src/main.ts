import { createApp } from 'vue';
import App from './App.vue';
import { prefetchSharedReport } from './composables/useSharedReport.ts';
import { yieldToMain } from './lib/yieldToMain.ts';
import { createAppRouter } from './router.ts';
import './styles/base.css';
import './styles/print.css';

prefetchSharedReport(location.pathname);
// Evaluating the entry (and starting the report's request), making the router and mounting the app are three
// tasks, so none blocks a slow phone for long.
void (async () => {
  await yieldToMain();
  const router = createAppRouter();
  await yieldToMain();
  createApp(App).use(router).mount('#app');
})();
