-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createtable.html (TEMPORARY: "Existing permanent tables with the same name are not visible to the current session while the temporary table exists, unless they are referenced with schema-qualified names"); https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-SEARCH-PATH (pg_temp is searched first)
-- verified: PG15: after the file public.order_items still has all its rows (3 inserted before; count unchanged); the UPDATE and DELETE hit only pg_temp.order_items; public.order_items relfilenode unchanged
-- given: CREATE TABLE order_items (id bigint PRIMARY KEY, order_id bigint NOT NULL, sku text NOT NULL, qty int NOT NULL);
-- Scratch work for the SKU rename report: the session-local copy shadows the real table.
CREATE TEMP TABLE order_items AS
    SELECT id, order_id, sku, qty FROM public.order_items WHERE sku LIKE 'LEGACY-%';
UPDATE order_items SET sku = replace(sku, 'LEGACY-', 'L-');
DELETE FROM order_items;
DROP TABLE order_items;
