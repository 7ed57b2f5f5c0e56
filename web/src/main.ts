import { createApp } from 'vue';
import App from './App.vue';
import { prefetchSharedReport } from './composables/useSharedReport.ts';
import { router } from './router.ts';
import './styles/base.css';
import './styles/print.css';

prefetchSharedReport(location.pathname);
createApp(App).use(router).mount('#app');
