import type { ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';

/** Rows every capability stores per API key (voices, videos) share these columns. */
interface OwnedRow extends ObjectLiteral {
  apiKeyId: string;
  id: string;
}

/**
 * One page of a key's rows, newest first, with keyset paging on (createdAt, id): stable while rows
 * are added, and one row more than the page is read to know whether another page follows.
 */
export async function newestFirstPage<T extends OwnedRow>(
  query: SelectQueryBuilder<T>,
  apiKeyId: string,
  page: { limit: number; after?: { createdAt: number; id: string } },
): Promise<{ rows: T[]; hasMore: boolean }> {
  const alias = query.alias;
  query
    .where(`${alias}.apiKeyId = :apiKeyId`, { apiKeyId })
    .orderBy(`${alias}.createdAt`, 'DESC')
    .addOrderBy(`${alias}.id`, 'DESC')
    .limit(page.limit + 1);
  if (page.after) {
    query.andWhere(`(${alias}.createdAt < :createdAt OR (${alias}.createdAt = :createdAt AND ${alias}.id < :id))`, {
      createdAt: page.after.createdAt,
      id: page.after.id,
    });
  }
  const rows = await query.getMany();
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/** Deletes a key's row; of two concurrent deletes only the one that removed it gets the row back. */
export async function deleteOwned<T extends OwnedRow>(repo: Repository<T>, apiKeyId: string, id: string): Promise<T | null> {
  const where = { apiKeyId, id } as unknown as Parameters<Repository<T>['findOneBy']>[0];
  const row = await repo.findOneBy(where);
  if (!row) return null;
  const result = await repo.delete(where as never);
  return (result.affected ?? 1) > 0 ? row : null;
}
