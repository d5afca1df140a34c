-- expect: unsafe rejected-by-server-version
-- doc: https://www.postgresql.org/docs/18/sql-createtable.html (NOT ENFORCED, as a table constraint or a column constraint's attribute, is new in 18)
-- pg-version: 15
-- verified: PG15: in a transaction the server answers SQLSTATE 42601 (syntax error at or near "ENFORCED"); PG18: created
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL, score int, note text, doubled int GENERATED ALWAYS AS (score * 2) STORED);
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts (id), total numeric, status text);
CREATE TABLE refunds (id bigint PRIMARY KEY, order_id bigint REFERENCES orders (id) NOT ENFORCED, amount numeric, CHECK (amount > 0) NOT ENFORCED);
