CREATE TABLE order_status_history (
    order_id   bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    status     text NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now()
);

-- The author's own transaction: its statements depend on each other (the isolation level must
-- come first, and the temporary table only lives until COMMIT), so safemigrate runs the block
-- exactly as written, as one step.
BEGIN;
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
CREATE TEMP TABLE current_status ON COMMIT DROP AS
    SELECT id AS order_id, status FROM orders;
INSERT INTO order_status_history (order_id, status)
    SELECT order_id, status FROM current_status;
COMMIT;
