-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE, but here it runs in the same transaction as the ADD ... NOT VALID, whose SHARE ROW EXCLUSIVE locks on both tables are held until COMMIT, so the validation scan runs under them)
-- verified: PG15: inside the block, locks held at the end: ShareRowExclusiveLock on line_items and on orders; seq_scan of line_items +1 (validation) before COMMIT
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, placed_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE line_items (id bigint PRIMARY KEY, order_id bigint NOT NULL, qty int NOT NULL);
-- V42__line_items_order_fk.sql
BEGIN;
ALTER TABLE line_items ADD CONSTRAINT fk_line_items_order FOREIGN KEY (order_id) REFERENCES orders (id) NOT VALID;
ALTER TABLE line_items VALIDATE CONSTRAINT fk_line_items_order;
COMMIT;
