/** What the share page provides to every table below it: the catalogue's explanations of not-meaningful values. */
import type { InjectionKey, Ref } from 'vue';

export const NULL_REASONS_KEY: InjectionKey<Readonly<Ref<Record<string, string>>>> = Symbol('null-reasons');
