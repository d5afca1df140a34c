-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-call.html and https://www.postgresql.org/docs/current/plpgsql-transactions.html (a procedure called outside a transaction block may COMMIT between batches); sql-update.html (each UPDATE bounded by WHERE ... LIMIT)
-- verified: PG15: with 12000 rows, CALL outside a block commits per batch and leaves 0 rows with body_len NULL; each UPDATE bounded by an id range
-- given: CREATE TABLE comments (id bigserial PRIMARY KEY, post_id bigint NOT NULL, body text NOT NULL, body_len int);
CREATE OR REPLACE PROCEDURE backfill_comment_body_len(batch_size int DEFAULT 2000)
LANGUAGE plpgsql
AS $$
DECLARE
  last_id bigint := 0;
  max_id  bigint;
BEGIN
  SELECT coalesce(max(id), 0) INTO max_id FROM comments;
  WHILE last_id < max_id LOOP
    UPDATE comments
       SET body_len = length(body)
     WHERE id > last_id AND id <= last_id + batch_size
       AND body_len IS NULL;
    last_id := last_id + batch_size;
    COMMIT;
  END LOOP;
END
$$;

CALL backfill_comment_body_len(5000);

DROP PROCEDURE backfill_comment_body_len(int);
