--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: acc; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.acc (
    id integer NOT NULL,
    n integer
);


--
-- Name: safemigrate_history; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.safemigrate_history (
    version bigint NOT NULL,
    name text NOT NULL,
    step integer NOT NULL,
    checksum text NOT NULL,
    state text DEFAULT 'applied'::text NOT NULL,
    applied_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    duration_ms double precision,
    attempts integer,
    applied_by text DEFAULT CURRENT_USER NOT NULL,
    application_name text DEFAULT current_setting('application_name'::text) NOT NULL,
    CONSTRAINT safemigrate_history_state_check CHECK ((state = ANY (ARRAY['applied'::text, 'baseline'::text, 'started'::text])))
);


--
-- Name: TABLE safemigrate_history; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.safemigrate_history IS 'safemigrate: one row per applied migration step';


--
-- Data for Name: acc; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.acc VALUES (1, 111);


--
-- Data for Name: safemigrate_history; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.safemigrate_history VALUES (1, 'acc', 0, 'ab2f2d064d579ac338d351b7d9c8b163935d3c0beb1981ec8ffe19b876a151c4', 'applied', '2026-12-07 15:53:32.924401+00', 0.998, 1, 'postgres', 'safemigrate');
INSERT INTO public.safemigrate_history VALUES (1, 'acc', 1, '10fb129fc75dd028bdd82559d5e28aba39465ede0188930e7b8d1ab0f3a13ba7', 'applied', '2026-12-07 15:53:32.947598+00', 0.605, 1, 'postgres', 'safemigrate');
INSERT INTO public.safemigrate_history VALUES (2, 'plus', 0, '51342e56503d6413c7a247a55b1247cd0112a2b0758cda0fa19cc5fe2591cf1a', 'applied', '2026-12-07 15:53:32.964286+00', 5.279, 1, 'postgres', 'safemigrate');


--
-- Name: acc acc_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.acc
    ADD CONSTRAINT acc_pkey PRIMARY KEY (id);


--
-- Name: safemigrate_history safemigrate_history_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.safemigrate_history
    ADD CONSTRAINT safemigrate_history_pkey PRIMARY KEY (version, step);


--
-- PostgreSQL database dump complete
--


