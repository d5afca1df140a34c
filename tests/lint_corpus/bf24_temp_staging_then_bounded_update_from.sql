-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-update.html (UPDATE ... FROM ... WHERE: only joined rows change); https://www.postgresql.org/docs/current/sql-createtable.html (TEMPORARY tables are session-local)
-- verified: PG15: all statements succeed; only the rows matching the temp mapping are updated (1 of 3 test rows); products relfilenode unchanged
-- given: CREATE TABLE products (id bigint PRIMARY KEY, sku text NOT NULL UNIQUE, category_id int, discontinued boolean NOT NULL DEFAULT false);
CREATE TEMPORARY TABLE sku_fixes (old_sku text PRIMARY KEY, new_category int NOT NULL) ON COMMIT PRESERVE ROWS;
INSERT INTO sku_fixes (old_sku, new_category) VALUES ('A-100', 7), ('A-101', 7), ('B-200', 9);
-- whole-table update of the temp table: it is ours
UPDATE sku_fixes SET new_category = new_category + 100;
CREATE INDEX ON sku_fixes (new_category);
UPDATE products AS p
   SET category_id = f.new_category
  FROM sku_fixes AS f
 WHERE p.sku = f.old_sku
   AND p.category_id IS DISTINCT FROM f.new_category;
DROP TABLE sku_fixes;
