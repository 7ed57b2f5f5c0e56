/**
 * What the share page provides to every card below it: the catalogue's explanations of not-meaningful values,
 * and the data gaps (what was not submitted) by the slug of each item they leave empty.
 */
import type { InjectionKey, Ref } from 'vue';

export const NULL_REASONS_KEY: InjectionKey<Readonly<Ref<Record<string, string>>>> = Symbol('null-reasons');

export const DATA_GAPS_KEY: InjectionKey<Readonly<Ref<Map<string, string[]>>>> = Symbol('data-gaps');
