/** The analysis catalogue by slug (labels, units, descriptions, risk rules), for the writers and the prompt. */
import { analysisCatalogue, type CatalogueItem } from '../../worker/catalogue/analysisCatalogue.ts';

let bySlug: ReadonlyMap<string, CatalogueItem> | undefined;

export function catalogueItem(slug: string): CatalogueItem | undefined {
  bySlug ??= new Map(analysisCatalogue().items.map((item) => [item.slug, item]));
  return bySlug.get(slug);
}
