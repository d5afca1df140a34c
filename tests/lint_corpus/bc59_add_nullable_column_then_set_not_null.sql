-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL scans the table under ACCESS EXCLUSIVE unless a valid CHECK proves it); the column is new but the table is old and full: every existing row holds NULL, so the scan runs over the whole table and the statement fails
-- verified: PG15: the ADD COLUMN was instant (relfilenode unchanged); SET NOT NULL scanned reviews (seq_scan +1) and failed with "column "rating" of relation "reviews" contains null values"
-- given: CREATE TABLE reviews (id bigint PRIMARY KEY, product_id bigint NOT NULL, body text);
ALTER TABLE reviews ADD COLUMN rating smallint;
ALTER TABLE reviews ALTER COLUMN rating SET NOT NULL;
