-- expect: unsafe rejected-by-server-version
-- doc: https://www.postgresql.org/docs/18/sql-createtable.html (GENERATED ALWAYS AS ... VIRTUAL is new in 18; before, STORED was required)
-- pg-version: 15
-- verified: PG15: in a transaction the server answers SQLSTATE 42601 (syntax error at or near "VIRTUAL"); PG18: created
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL, score int, note text, doubled int GENERATED ALWAYS AS (score * 2) STORED);
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts (id), total numeric, status text);
CREATE TABLE order_lines (id bigint PRIMARY KEY, order_id bigint, qty int, price numeric, amount numeric GENERATED ALWAYS AS (qty * price) VIRTUAL);
