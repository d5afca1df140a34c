-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createtrigger.html (CREATE TRIGGER takes SHARE ROW EXCLUSIVE briefly, no scan); https://www.postgresql.org/docs/current/plpgsql-trigger.html (the body only runs when a row event fires later, for one row at a time) ; the UPDATE without WHERE touches a one-row counter table created in this file
-- verified: PG15: all statements succeed; no pre-existing relfilenode changed; orders rows are not touched by the migration (n_tup_upd of orders stays 0)
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, status text NOT NULL, total numeric(12,2));
CREATE TABLE order_stats (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), order_count bigint NOT NULL DEFAULT 0);
INSERT INTO order_stats DEFAULT VALUES;

CREATE OR REPLACE FUNCTION bump_order_count() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE order_stats SET order_count = order_count + 1;
    RETURN NEW;
END
$$;

CREATE TRIGGER orders_count_insert
    AFTER INSERT ON orders
    FOR EACH ROW EXECUTE FUNCTION bump_order_count();
